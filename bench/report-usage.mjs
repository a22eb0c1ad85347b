// Preloaded (node --import) into a process the scale bench times: on exit it writes the process's own CPU time
// and peak resident set to BENCH_USAGE_FILE, so whole-process figures need no platform tool.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

process.on('exit', () => {
  const file = process.env.BENCH_USAGE_FILE;
  if (file === undefined) return;
  const cpu = process.cpuUsage();
  writeFileSync(
    file,
    JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, rssMb: process.resourceUsage().maxRSS / 1024 }),
  );
});
