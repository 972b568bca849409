/**
 * E-mail addresses are matched and ordered without regard to ASCII case
 * (docs/rules.md#bulk-attributions), as SQLite's NOCASE does: A-Z become a-z, every other
 * character stays as it is.
 */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}
