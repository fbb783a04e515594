/**
 * Live progress of a deployment: one bar per pool, MachineSet, operator and Windows node set, redrawn
 * in place on a terminal; one line per change otherwise (CI logs), so the same run reads well in both.
 */

export interface Row {
  label: string;
  done?: number;
  total?: number;
  state: "waiting" | "done" | "failed";
  message: string;
}

const BAR_WIDTH = 20;
const REDRAW_MS = 100;

function bar(row: Row): string {
  if (row.total === undefined || row.total === 0 || row.done === undefined) {
    return row.state === "done" ? `[${"#".repeat(BAR_WIDTH)}]` : `[${" ".repeat(BAR_WIDTH)}]`;
  }
  const filled = Math.round((Math.min(row.done, row.total) / row.total) * BAR_WIDTH);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`;
}

const MARK = { waiting: " ", done: "✓", failed: "✗" } as const;

export class ProgressView {
  private readonly rows = new Map<string, Row>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();

  constructor(
    private readonly out: NodeJS.WriteStream = process.stdout,
    readonly live = Boolean(out.isTTY) && process.env.CI === undefined,
  ) {}

  private stamp(): string {
    return `[${((Date.now() - this.started) / 1000).toFixed(1).padStart(5)}s]`;
  }

  /** Sets a row; on a plain stream, a changed row is printed as a line. */
  update(key: string, row: Row): void {
    const previous = this.rows.get(key);
    const changed =
      !previous ||
      previous.state !== row.state ||
      previous.done !== row.done ||
      previous.total !== row.total ||
      previous.message !== row.message;
    if (!changed) return;
    this.rows.set(key, row);
    if (!this.live) {
      const count = row.total !== undefined && row.done !== undefined ? ` ${row.done}/${row.total}` : "";
      this.out.write(`${this.stamp()} ${MARK[row.state]} ${row.label}${count}: ${row.message}\n`);
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.redraw();
    }, REDRAW_MS);
  }

  /** A line above the bars (both modes). */
  log(line: string): void {
    if (!this.live) {
      this.out.write(`${this.stamp()} ${line}\n`);
      return;
    }
    this.clear();
    this.out.write(`${this.stamp()} ${line}\n`);
    this.redraw();
  }

  private clear(): void {
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private redraw(): void {
    if (!this.live) return;
    this.clear();
    const width = this.out.columns ?? 120;
    const labelWidth = Math.max(...[...this.rows.values()].map((r) => r.label.length), 0);
    for (const row of this.rows.values()) {
      const count =
        row.total !== undefined && row.done !== undefined ? `${row.done}/${row.total}`.padStart(5) : "     ";
      const line = `${MARK[row.state]} ${row.label.padEnd(labelWidth)} ${bar(row)} ${count}  ${row.message}`;
      this.out.write(`${line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line}\n`);
    }
    this.drawn = this.rows.size;
  }

  /** Draws the final state and forgets the rows (the next phase starts with none). */
  finish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.redraw();
    this.drawn = 0;
    this.rows.clear();
  }
}

/** Rows under a header, each column as wide as its widest cell, as `oc get` prints them. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  return [header, ...rows].map((cells) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join("   ")
      .trimEnd(),
  );
}
