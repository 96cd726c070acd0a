import { readFileSync } from "node:fs";
import path from "node:path";
import { contractFixture } from "@community/fixtures/testing";
import request from "supertest";
import { WORKSPACE_ROOT } from "../config/config";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Every metric the api exports (the optional ones switched on) is named in the README and docs/operations.md. */
describe("the documented metrics", () => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: { REDIS_URL, REDIS_KEY_PREFIX: `metrics-docs:${process.pid}:` },
      readUrl: (url) => url,
    });
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it("lists every metric of the exposition but prom-client's process defaults", async () => {
    const text = (await request(e2e.server).get("/metrics")).text;
    const names = [...text.matchAll(/^# TYPE (\S+) /gm)]
      .map((m) => m[1] as string)
      .filter((name) => !/^(process|nodejs)_/.test(name));
    expect(names).toEqual(
      expect.arrayContaining(["db_circuit_open", "rate_limit_storage_up", "db_replica_circuit_open"]),
    );
    for (const doc of ["README.md", "docs/operations.md"]) {
      const body = readFileSync(path.join(WORKSPACE_ROOT, doc), "utf8");
      expect({ doc, missing: names.filter((name) => !body.includes(`\`${name}\``)) }).toEqual({ doc, missing: [] });
    }
  });
});
