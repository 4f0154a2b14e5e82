import { describe, it, expect } from "vitest";
import { parseContainerLogQuery } from "./container-log-query.js";

const parse = (q: string, nowMs = 0) => parseContainerLogQuery(new URLSearchParams(q), nowMs);

describe("parseContainerLogQuery", () => {
  it("decodes every option", () => {
    expect(parse("follow=true&previous=1&timestamps=yes&tailLines=10&sinceSeconds=5&limitBytes=100")).toEqual({
      ok: true,
      value: { follow: true, previous: true, timestamps: true, tailLines: 10, sinceSeconds: 5, limitBytes: 100 },
    });
    expect(parse("")).toEqual({ ok: true, value: {} });
    expect(parse("follow=false&previous=0&timestamps=FALSE")).toEqual({ ok: true, value: { follow: false, previous: false, timestamps: false } });
  });

  it("supports the old tail parameter", () => {
    expect(parse("tail=3")).toEqual({ ok: true, value: { tailLines: 3 } });
    expect(parse("tail=all&tailLines=4")).toEqual({ ok: true, value: {} });
  });

  it("turns sinceTime into seconds", () => {
    expect(parse("sinceTime=1970-01-01T00:00:10Z", 20_500)).toEqual({ ok: true, value: { sinceSeconds: 11 } });
    expect(parse("sinceTime=1970-01-01T00:00:10Z", 0)).toEqual({ ok: true, value: { sinceSeconds: 1 } });
  });

  it.each(["tailLines=abc", "tailLines=1.5", "sinceSeconds=", "limitBytes=99999999999999999999", "sinceTime=yesterday"])("refuses undecodable %s with 400", (q) => {
    expect(parse(q)).toEqual({ ok: false, statusCode: 400, message: `{"message": "Unable to decode query."}` });
  });

  it.each(["tailLines=-1", "limitBytes=0", "sinceSeconds=0", "sinceSeconds=5&sinceTime=1970-01-01T00:00:10Z"])("refuses invalid %s with 422", (q) => {
    expect(parse(q)).toEqual({ ok: false, statusCode: 422, message: `{"message": "Invalid request."}` });
  });
});
