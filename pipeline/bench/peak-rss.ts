// A child process's peak resident set size, reported on its stderr as it exits (bench rows run in child processes).

/** A `--import` module that prints the process's peak RSS on exit; pipes to a parent are synchronous on Linux. */
export const REPORT_PEAK_RSS = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nBENCH_MAX_RSS_KB='+process.resourceUsage().maxRSS+'\\n'))`;

/** The peak RSS in MB (10⁶ bytes) a child printed through `REPORT_PEAK_RSS`; throws naming `what` when absent. */
export function peakRssOf(stderr: string, what: string): number {
  const rss = /BENCH_MAX_RSS_KB=(\d+)/.exec(stderr);
  if (!rss) throw new Error(`${what}: the child reported no peak RSS`);
  return (Number(rss[1]) * 1024) / 1e6;
}
