// Preloaded by bench/importExport.ts into each measured command (`node --import`): reports the
// process's peak resident set size on stderr as it exits.
import { writeSync } from 'node:fs';

process.on('exit', () => writeSync(2, `peak-rss-kib ${process.resourceUsage().maxRSS}\n`));
