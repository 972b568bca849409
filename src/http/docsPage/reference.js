// The API reference of GET /docs: Swagger UI over this server's own document. URLs are relative
// to the page, so that a server behind a path prefix (a --public-url with a path) works.
// "Try it" calls the document's `servers` entry, which names this server; the key typed under
// "Authorize" is sent as X-API-Key. No validator badge: it would call a service elsewhere.
window.addEventListener('load', () => {
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
  });
});
