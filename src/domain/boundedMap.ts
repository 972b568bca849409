/**
 * A map of things worth remembering but cheap to learn again: past `most` entries it starts
 * again empty, so its memory stays bounded without keeping an order of use.
 */
export class BoundedMap<K, V> {
  private entries = new Map<K, V>();

  constructor(private readonly most: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.most) this.entries = new Map();
    this.entries.set(key, value);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    if (this.entries.size > 0) this.entries = new Map();
  }
}
