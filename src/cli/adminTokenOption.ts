import { readFileSync } from 'node:fs';
import { ADMIN_TOKEN_MIN_LENGTH } from '../http/adminToken.js';
import { CommandFailure } from './errors.js';

/** The environment variable that may hold the administration token instead of a file. */
const ADMIN_TOKEN_ENV = 'COMPDATA_ADMIN_TOKEN';

export const ADMIN_TOKEN_FILE_HELP =
  `turn the administration API on under /admin/v1/, behind the token in this file (or in $${ADMIN_TOKEN_ENV}); ` +
  `at least ${ADMIN_TOKEN_MIN_LENGTH} characters; default: off (404)`;

/**
 * The administration token of `serve`: the file's content (`--admin-token-file`, one trailing
 * line break ignored), else `COMPDATA_ADMIN_TOKEN`, else none (the API off). Never taken from the
 * command line, where the process list would show it. An empty or short one refuses the start.
 */
export function readAdminToken(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  let token: string;
  let source: string;
  if (file !== undefined) {
    try {
      token = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new CommandFailure(`cannot read the admin token file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    source = `the admin token file ${file}`;
  } else if (env[ADMIN_TOKEN_ENV] !== undefined) {
    token = env[ADMIN_TOKEN_ENV];
    source = ADMIN_TOKEN_ENV;
  } else {
    return undefined;
  }
  if (token.length < ADMIN_TOKEN_MIN_LENGTH || /\s/.test(token)) {
    throw new CommandFailure(`${source} must hold a token of at least ${ADMIN_TOKEN_MIN_LENGTH} characters and no white space`);
  }
  return token;
}
