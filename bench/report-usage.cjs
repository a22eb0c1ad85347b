// Preloaded (node --require) into a process the scale bench times: on exit it writes the process's own CPU time
// and peak resident set to BENCH_USAGE_FILE, so whole-process figures need no platform tool. CommonJS and
// --require, not --import: a module preloaded with --import sends a CommonJS entry (dist/cli/bin.cjs) through the
// ES module loader, which took `--version` from 1.2x to 1.8x bare node; --require leaves either kind of entry
// loading as it does for users.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.BENCH_USAGE_FILE;
  if (file === undefined) return;
  const cpu = process.cpuUsage();
  writeFileSync(
    file,
    JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, rssMb: process.resourceUsage().maxRSS / 1024 }),
  );
});
