import ts from 'typescript';

/** A comment of a source file: its first line (1-based) and its text, markers included. */
export interface SourceComment {
  line: number;
  text: string;
}

/**
 * Every comment of a TypeScript or JavaScript source, in order, found by TypeScript's parser (so
 * that `//` in a string, a template or a regular expression is not taken for one).
 */
export function commentsOf(path: string, text: string): SourceComment[] {
  const kind = /\.(?:[cm]?js)$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  const found = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) found.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.pos));
    take(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found]
    .sort(([a], [b]) => a - b)
    .map(([pos, comment]) => ({ line: source.getLineAndCharacterOfPosition(pos).line + 1, text: comment }));
}
