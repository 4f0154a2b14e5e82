import type { ChangeRow, CommitResult, Entry, MvccEngine } from "./engine.js";
import type { KeyRange } from "./keys.js";
import { insertSorted, lowerBound, removeSorted, upperBoundBy } from "./sorted.js";

interface Row {
  readonly key: string;
  readonly revision: number;
  /** null for a tombstone. */
  readonly value: string | null;
  readonly prevRevision: number;
}

/** The in-memory engine: the whole log in arrays, keys kept sorted for range scans. */
export class MemoryEngine implements MvccEngine {
  #revision = 0;
  #compacted = 0;
  /** Every retained row, ascending by revision. */
  #log: Row[] = [];
  readonly #byRevision = new Map<number, Row>();
  /** Retained rows per key, ascending by revision. */
  readonly #history = new Map<string, Row[]>();
  readonly #historyKeys: string[] = [];
  readonly #current = new Map<string, Row>();
  readonly #currentKeys: string[] = [];

  get currentRevision(): number {
    return this.#revision;
  }

  get compactedRevision(): number {
    return this.#compacted;
  }

  getLatest(key: string): Entry | undefined {
    const row = this.#current.get(key);
    return row === undefined ? undefined : toEntry(row);
  }

  getAt(key: string, revision: number): Entry | undefined {
    const rows = this.#history.get(key);
    if (rows === undefined) return undefined;
    const i = upperBoundBy(rows, revision, (r) => r.revision) - 1;
    const row = rows[i];
    return row === undefined || row.value === null ? undefined : toEntry(row);
  }

  listLatest(range: KeyRange, limit: number): Entry[] {
    const out: Entry[] = [];
    const keys = this.#currentKeys;
    for (let i = lowerBound(keys, range.start); i < keys.length; i++) {
      const key = keys[i] as string;
      if (key >= range.end || (limit > 0 && out.length >= limit)) break;
      out.push(toEntry(this.#current.get(key) as Row));
    }
    return out;
  }

  listAt(range: KeyRange, revision: number, limit: number): Entry[] {
    const out: Entry[] = [];
    const keys = this.#historyKeys;
    for (let i = lowerBound(keys, range.start); i < keys.length; i++) {
      const key = keys[i] as string;
      if (key >= range.end || (limit > 0 && out.length >= limit)) break;
      const entry = this.getAt(key, revision);
      if (entry !== undefined) out.push(entry);
    }
    return out;
  }

  countLatest(range: KeyRange): number {
    const keys = this.#currentKeys;
    return lowerBound(keys, range.end) - lowerBound(keys, range.start);
  }

  countAt(range: KeyRange, revision: number): number {
    return this.listAt(range, revision, 0).length;
  }

  commit(key: string, value: string | null, expectedRevision: number): CommitResult {
    const prev = this.#current.get(key);
    const currentRevision = prev?.revision ?? 0;
    if (currentRevision !== expectedRevision || (value === null && prev === undefined)) {
      return { ok: false, currentRevision };
    }
    const row: Row = { key, revision: this.#revision + 1, value, prevRevision: currentRevision };
    this.#revision = row.revision;
    this.#log.push(row);
    this.#byRevision.set(row.revision, row);
    let rows = this.#history.get(key);
    if (rows === undefined) {
      rows = [];
      this.#history.set(key, rows);
      insertSorted(this.#historyKeys, key);
    }
    rows.push(row);
    if (value === null) {
      this.#current.delete(key);
      removeSorted(this.#currentKeys, key);
    } else {
      if (prev === undefined) insertSorted(this.#currentKeys, key);
      this.#current.set(key, row);
    }
    const change: ChangeRow = { key, revision: row.revision, value, prevRevision: currentRevision, prevValue: prev?.value ?? null };
    return { ok: true, change };
  }

  readEvents(range: KeyRange, afterRevision: number, limit: number): ChangeRow[] {
    const out: ChangeRow[] = [];
    const log = this.#log;
    for (let i = upperBoundBy(log, afterRevision, (r) => r.revision); i < log.length && out.length < limit; i++) {
      const row = log[i] as Row;
      if (row.key < range.start || row.key >= range.end) continue;
      const prevValue = row.prevRevision === 0 ? null : (this.#byRevision.get(row.prevRevision)?.value ?? null);
      out.push({ key: row.key, revision: row.revision, value: row.value, prevRevision: row.prevRevision, prevValue });
    }
    return out;
  }

  compactStep(revision: number): number {
    const target = Math.min(revision, this.#revision);
    if (target <= this.#compacted) return this.#compacted;
    const drop = new Set<number>();
    const start = upperBoundBy(this.#log, this.#compacted, (r) => r.revision);
    const end = upperBoundBy(this.#log, target, (r) => r.revision);
    for (let i = start; i < end; i++) {
      const row = this.#log[i] as Row;
      if (row.prevRevision > 0) drop.add(row.prevRevision);
      if (row.value === null) drop.add(row.revision);
    }
    if (drop.size > 0) {
      const touched = new Set<string>();
      for (const rev of drop) {
        const row = this.#byRevision.get(rev);
        if (row === undefined) continue;
        this.#byRevision.delete(rev);
        touched.add(row.key);
      }
      this.#log = this.#log.filter((r) => !drop.has(r.revision));
      for (const key of touched) {
        const rows = (this.#history.get(key) ?? []).filter((r) => !drop.has(r.revision));
        if (rows.length === 0) {
          this.#history.delete(key);
          removeSorted(this.#historyKeys, key);
        } else {
          this.#history.set(key, rows);
        }
      }
    }
    this.#compacted = target;
    return target;
  }

  close(): void {
    this.#log = [];
  }
}

function toEntry(row: Row): Entry {
  return { key: row.key, revision: row.revision, value: row.value as string };
}
