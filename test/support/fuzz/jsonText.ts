/**
 * JSON bodies a fuzzer sends: besides plain values, tokens written exactly as given (numbers
 * JSON.parse reads its own way, such as `1e400` or `-0`; deep nesting) and objects with
 * repeated member names, which no JavaScript object can hold.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written with these members in this order, repeated names included. */
export class Members {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
}

export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Members) return `{${value.entries.map(([name, member]) => `${JSON.stringify(name)}:${jsonText(member)}`).join(',')}}`;
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') return jsonText(new Members(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}

/** The text of a value in a query string or a path segment, before any percent-encoding. */
export function plainText(value: unknown): string {
  return typeof value === 'string' ? value : jsonText(value);
}

/** The value a JSON text stands for, as the server's JSON.parse sees it; `undefined` if it does not parse. */
export function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
