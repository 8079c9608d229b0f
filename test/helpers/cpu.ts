import fs from 'node:fs';

/**
 * CPU time the calling thread has used, in ms (user + system, from /proc/thread-self/stat, in
 * clock ticks of 10 ms), or null where there is no such file. Unlike wall time it does not grow
 * when other processes load the machine, so a test can bound the work a step does.
 */
export function threadCpuMs(): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync('/proc/thread-self/stat', 'latin1');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces) start at the state, field 3.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}
