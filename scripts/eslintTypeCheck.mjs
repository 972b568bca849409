// @ts-check
/**
 * The type check of `make lint` (tsc's errors on the files of tsconfig.json), done by ESLint on the
 * program its type-aware rules already build (eslint.config.js), instead of by a tsc of its own
 * that would read, parse and bind every file and its types a second time: an ESLint rule that
 * reports each linted file's syntactic and semantic diagnostics, and once the program's own (its
 * options, its global types). `make typecheck` still runs tsc alone.
 */
import ts from 'typescript';

/** @type {WeakSet<object>} the programs whose global diagnostics were reported */
const reportedPrograms = new WeakSet();

/** @type {import('eslint').Rule.RuleModule} */
const typeErrors = {
  meta: { type: 'problem', docs: { description: "TypeScript's errors, as tsc reports them" }, schema: [] },
  create(context) {
    const services = context.sourceCode.parserServices;
    const program = services?.program;
    if (!program) return {};
    const sourceFile = program.getSourceFile(context.physicalFilename);
    const diagnostics = sourceFile ? [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)] : [];
    if (!reportedPrograms.has(program)) {
      reportedPrograms.add(program);
      diagnostics.push(...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
    }
    return {
      Program(node) {
        for (const diagnostic of diagnostics) {
          if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
          const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
          const where = diagnostic.file && diagnostic.file !== sourceFile ? ` (in ${diagnostic.file.fileName})` : '';
          const message = `TS${diagnostic.code}: ${text}${where}`;
          if (diagnostic.file === sourceFile && diagnostic.start !== undefined) {
            const start = sourceFile.getLineAndCharacterOfPosition(diagnostic.start);
            const end = sourceFile.getLineAndCharacterOfPosition(diagnostic.start + (diagnostic.length ?? 0));
            context.report({ loc: { start: { line: start.line + 1, column: start.character }, end: { line: end.line + 1, column: end.character } }, message });
          } else {
            context.report({ node, message });
          }
        }
      },
    };
  },
};

export default { rules: { 'type-errors': typeErrors } };
