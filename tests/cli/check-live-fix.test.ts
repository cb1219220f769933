// What a failed `check --live` request tells the user to fix (issue 16 §3): read from what came
// back, so a scripted endpoint whose script ran out (or any endpoint refusing for its own reason)
// is not sent to check credentials it never questioned.
import { describe, expect, test } from "bun:test";
import { exhaustedMessage } from "../../fixtures/servers/script.ts";
import { fixFor } from "../../src/cli/check/live.ts";

describe("fixFor", () => {
  test("credentials, model id and endpoint are named only when the reply says so", () => {
    expect(fixFor("401 Unauthorized: invalid x-api-key")).toContain("credentials");
    expect(fixFor("AI_APICallError: model gpt-9 not found")).toContain("model id");
    expect(fixFor("connect ECONNREFUSED 127.0.0.1:4000")).toContain("check the endpoint");
    expect(fixFor("")).toContain("check the endpoint");
  });

  test("an endpoint that answered with its own refusal points at its message", () => {
    const scripted = exhaustedMessage({ turns: [{}] } as never, 2);
    const fix = fixFor(`invalid_request_error: ${scripted}`);
    expect(fix).toContain("the endpoint answered and refused the request");
    expect(fix).not.toContain("credentials");
  });
});
