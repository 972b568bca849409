/** Whether a request only reads: GET, and HEAD (a GET without its body). */
export const isReadMethod = (method: string): boolean => method === 'GET' || method === 'HEAD';
