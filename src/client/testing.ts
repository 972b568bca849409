/**
 * `compdata/testing`: a tenant of its own per test, made over the administration API, with a
 * client holding its key. See docs/client.md, "Tests against a real server".
 */
export { createSandbox, DEFAULT_URL, SANDBOX_ENV, type Sandbox, type SandboxOptions } from './sandbox.js';
export { ProblemError } from './problemError.js';
