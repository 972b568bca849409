/**
 * The CPU a command's database servers spend, which a test runner's own times never count:
 *
 *   node bench/serverCpu.mjs COMMAND ARGS...
 *
 * Runs the command and reads /proc every 0.2 s. Each PostgreSQL postmaster among the command's
 * descendants is measured with its subtree: its own CPU, what it has reaped of its backends
 * (cutime, cstime) and the CPU of the backends alive at that moment; the last reading before it
 * stops counts. Prints the command's wall time, its whole CPU (this process's reaped children,
 * servers included, as `/usr/bin/time` counts them, this sampler not), the servers' share and the rest. Linux only.
 * With `SERVER_CPU_EACH=1`, also each postmaster's CPU, the seconds (from the start) it was seen
 * between, and its data directory: which servers of a test pass cost what.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node bench/serverCpu.mjs COMMAND [ARGS...]\n');
  process.exit(2);
}
const ticks = 100;
const started = process.hrtime.bigint();
const child = spawn(command, args, { stdio: 'inherit' });

/** Every process's parent, name and CPU ticks (own, and reaped children's), from /proc. */
function processes() {
  const table = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // Fields from the state (3rd of stat): ppid is 4th, utime 14th, stime 15th, cutime 16th, cstime 17th.
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((at) => Number(fields[at]));
    table.set(Number(entry), { parent: Number(fields[1]), name, own: utime + stime, reaped: cutime + cstime });
  }
  return table;
}

const servers = new Map();
function sample() {
  const table = processes();
  const children = new Map();
  for (const [pid, info] of table) children.set(info.parent, [...(children.get(info.parent) ?? []), pid]);
  const subtree = (pid) => [pid, ...(children.get(pid) ?? []).flatMap(subtree)];
  for (const pid of subtree(child.pid).slice(1)) {
    const info = table.get(pid);
    if (info.name !== 'postgres' || table.get(info.parent)?.name === 'postgres') continue;
    const total = subtree(pid).reduce((sum, member) => sum + table.get(member).own + (member === pid ? table.get(member).reaped : 0), 0);
    servers.set(pid, total);
    if (!seen.has(pid)) seen.set(pid, { from: elapsed(), directory: dataDirectory(pid) });
    seen.get(pid).to = elapsed();
  }
}
const seen = new Map();
const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
function dataDirectory(pid) {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    // Without -D (a bootstrap of initdb): the whole command.
    return argv.includes('-D') ? argv[argv.indexOf('-D') + 1] : argv.join(' ');
  } catch {
    return '?';
  }
}
const timer = setInterval(sample, 200);
child.on('exit', (code) => {
  clearInterval(timer);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  // The command, reaped: its CPU and all it reaped in turn (cutime and cstime of this process).
  const all = processes().get(process.pid).reaped / ticks;
  const server = [...servers.values()].reduce((a, b) => a + b, 0) / ticks;
  process.stderr.write(
    `serverCpu: wall ${wall.toFixed(1)} s, cpu ${all.toFixed(1)} s: database servers ${server.toFixed(1)} s (${servers.size} postmasters), the rest ${(all - server).toFixed(1)} s\n`,
  );
  if (process.env.SERVER_CPU_EACH) {
    for (const [pid, { from, to, directory }] of seen) {
      process.stderr.write(`serverCpu: postmaster ${pid} ${(servers.get(pid) / ticks).toFixed(1)} s, seen ${from.toFixed(1)}-${to.toFixed(1)} s, ${directory}\n`);
    }
  }
  process.exit(code ?? 1);
});
