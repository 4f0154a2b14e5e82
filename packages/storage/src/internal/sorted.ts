/** Index of the first element `>= value` in an ascending array. */
export function lowerBound<T>(items: readonly T[], value: T): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((items[mid] as T) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first element whose `get(element) > value`, in an array ascending by `get`. */
export function upperBoundBy<T>(items: readonly T[], value: number, get: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (get(items[mid] as T) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function insertSorted(items: string[], value: string): void {
  const i = lowerBound(items, value);
  if (items[i] !== value) items.splice(i, 0, value);
}

export function removeSorted(items: string[], value: string): void {
  const i = lowerBound(items, value);
  if (items[i] === value) items.splice(i, 1);
}
