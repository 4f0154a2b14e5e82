/**
 * The JSON text of objects the watch cache has already serialised for its window, so the watch
 * handler writes an event's line without serialising the same object again. Keyed weakly by the
 * object: an entry lives as long as the object. Objects registered here are the shared, read-only
 * objects of live events (never mutated after registration, so the text stays exact).
 */
const texts = new WeakMap<object, string>();

/** Records that `JSON.stringify(object)` is `text`. */
export function rememberObjectText(object: object, text: string): void {
  texts.set(object, text);
}

/** `JSON.stringify(object)`, from the record when there is one. */
export function objectText(object: object): string {
  return texts.get(object) ?? JSON.stringify(object);
}
