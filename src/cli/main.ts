// Entry point of the `compdata` command (bin/compdata.js imports the compiled file).
import { runCli } from './program.js';

// A reader that stops early (`compdata keys list --db x | head -1`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv);
