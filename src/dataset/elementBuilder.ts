import type { Token } from 'stream-json/core/parser.js';
import { DatasetError } from '../domain/datasetError.js';
import { fieldPath } from './datasetFormat.js';

/** Deepest nesting inside one element (a reporting record needs 2). */
const MAX_DEPTH = 16;
/** Largest element, counted as tokens plus characters of keys and strings. */
const MAX_ELEMENT_SIZE = 4 * 1024 * 1024;

type Container = Record<string, unknown> | unknown[];

/**
 * Assembles one JSON value (one element of a dataset) from parser tokens, knowing at every
 * token where it stands, so that any error names a JSON path. It refuses what JSON.parse would
 * take but a dataset never needs: a key given twice in one object, numbers beyond the double
 * range, nesting deeper than 16, and elements larger than 4 Mi tokens and characters.
 */
export class ElementBuilder {
  private readonly containers: Container[] = [];
  private readonly keys: (string | undefined)[] = [];
  private size = 0;
  private basePath = '$';
  /** The value, once {@link feed} has returned true. */
  value: unknown;

  /** Starts a new value, found at `path`. */
  reset(path: string): void {
    this.containers.length = 0;
    this.keys.length = 0;
    this.size = 0;
    this.basePath = path;
    this.value = undefined;
  }

  /** Feeds one token; true when it completes the value. */
  feed(token: Token): boolean {
    if (++this.size > MAX_ELEMENT_SIZE) this.tooLarge();
    switch (token.name) {
      case 'startObject':
        return this.open({});
      case 'startArray':
        return this.open([]);
      case 'endObject':
      case 'endArray':
        this.keys.pop();
        return this.add(this.containers.pop());
      case 'keyValue':
        this.size += token.value.length;
        this.keys[this.keys.length - 1] = token.value;
        return false;
      case 'stringValue':
        this.size += token.value.length;
        return this.add(token.value);
      case 'numberValue': {
        const value = Number(token.value);
        if (!Number.isFinite(value)) throw new DatasetError(this.path(), `number out of range: ${token.value}`);
        return this.add(value);
      }
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        return this.add(token.value);
      default:
        return false;
    }
  }

  /** The JSON path of the value being read: `$.reporting[7].user.email`. */
  path(): string {
    let path = this.basePath;
    for (const [depth, container] of this.containers.entries()) {
      if (Array.isArray(container)) path += `[${container.length}]`;
      else {
        const key = this.keys[depth];
        if (key !== undefined) path = fieldPath(path, key);
      }
    }
    return path;
  }

  private open(container: Container): boolean {
    if (this.containers.length >= MAX_DEPTH) throw new DatasetError(this.path(), `nested deeper than ${MAX_DEPTH} levels`);
    this.containers.push(container);
    this.keys.push(undefined);
    return false;
  }

  /** Puts a finished value into its container; true when it was the element itself. */
  private add(value: unknown): boolean {
    const depth = this.containers.length;
    if (depth === 0) {
      this.value = value;
      return true;
    }
    const container = this.containers[depth - 1]!;
    if (Array.isArray(container)) {
      container.push(value);
      return false;
    }
    const key = this.keys[depth - 1]!;
    if (Object.hasOwn(container, key)) throw new DatasetError(this.path(), 'is given twice');
    if (key === '__proto__') Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
    else container[key] = value;
    this.keys[depth - 1] = undefined; // until the next key, the path is the object's
    return false;
  }

  private tooLarge(): never {
    throw new DatasetError(this.path(), 'element too large (more than 4 Mi tokens and characters)');
  }
}
