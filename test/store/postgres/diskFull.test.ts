import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { isDiskFull } from '../../../src/store/postgres/connection.js';

/** An error as the server sends it (pg's DatabaseError with its SQLSTATE). */
function serverError(code: string, message: string): Error {
  const error = new pg.DatabaseError(message, 0, 'error');
  error.code = code;
  return error;
}

test('a full disk is the disk_full state, or a connection refused for want of room to write the catalog cache', () => {
  assert.equal(isDiskFull(serverError('53100', 'could not extend file "base/16384/16385": No space left on device')), true);
  assert.equal(isDiskFull(serverError('XX000', 'could not write init file')), true);
  assert.equal(isDiskFull(serverError('XX000', 'cache lookup failed for relation 16385')), false);
  assert.equal(isDiskFull(serverError('57P01', 'terminating connection due to administrator command')), false);
  assert.equal(isDiskFull(new Error('connect ECONNREFUSED 127.0.0.1:5432')), false);
});
