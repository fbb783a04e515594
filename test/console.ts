/** Runs `action` with console.log and console.error captured, for tests of command-line entry points. */
export async function captureConsole<T>(action: () => Promise<T>): Promise<{ result: T; output: string }> {
  const lines: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = console.error = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    const result = await action();
    return { result, output: lines.join("\n") };
  } finally {
    [console.log, console.error] = [log, error];
  }
}
