import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { parseAllowedHosts } from "../../config/webhook-settings";
import { checkWebhookUrl, refusedAddress, resolveAndCheck, WEBHOOK_URL_MAX_LENGTH } from "./webhook-url";

const NONE = parseAllowedHosts(undefined);

function problemOf(raw: unknown, allowed = NONE): string | undefined {
  const result = checkWebhookUrl(raw, allowed);
  return "problem" in result ? result.problem : undefined;
}

/** A lookup that answers `addresses` for every name, in both of dns.lookup's shapes. */
function answering(...addresses: string[]): jest.MockedFunction<LookupFunction> {
  return jest.fn<void, Parameters<LookupFunction>>((_hostname, options, callback) => {
    const all = addresses.map((address) => ({ address, family: isIP(address) }));
    if (options.all) callback(null, all);
    else callback(null, all[0]?.address ?? "", all[0]?.family);
  });
}

describe(parseAllowedHosts.name, () => {
  it("is empty when unset or blank", () => {
    expect(parseAllowedHosts(undefined).size).toBe(0);
    expect(parseAllowedHosts(" ").size).toBe(0);
  });

  it("spells each entry as URL.hostname does", () => {
    const hosts = parseAllowedHosts("Receiver.Example.COM, 127.1 ,::1,[FE80::0001],0x7f000001,hooks_local");
    expect([...hosts].sort()).toEqual(["127.0.0.1", "[::1]", "[fe80::1]", "hooks_local", "receiver.example.com"]);
  });

  it.each([
    "https://receiver.example.com",
    "receiver.example.com:8443",
    "[::1]:8443",
    "[::1]:80",
    "receiver.example.com/hooks",
    "user@receiver.example.com",
    "*.example.com",
    "receiver example.com",
    "[::1",
  ])("refuses %j, naming the variable and the entry", (entry) => {
    expect(() => parseAllowedHosts(`127.0.0.1,${entry}`)).toThrow("WEBHOOK_ALLOWED_HOSTS");
    expect(() => parseAllowedHosts(`127.0.0.1,${entry}`)).toThrow(`"${entry}"`);
  });
});

describe(checkWebhookUrl.name, () => {
  it("accepts an https URL with a host name, and hands back the parsed URL", () => {
    const result = checkWebhookUrl("https://Receiver.example.com/hooks?list=events", NONE);
    expect(result).toEqual({ url: new URL("https://receiver.example.com/hooks?list=events") });
  });

  it.each([42, null, undefined, { href: "https://example.com/" }, ["https://example.com/"]])(
    "refuses %j, which is not a string",
    (raw) => expect(problemOf(raw)).toBe("must be a string"),
  );

  it(`refuses a URL longer than ${WEBHOOK_URL_MAX_LENGTH} characters, and accepts one that long`, () => {
    const base = "https://receiver.example.com/";
    expect(problemOf(base + "a".repeat(WEBHOOK_URL_MAX_LENGTH - base.length))).toBeUndefined();
    expect(problemOf(base + "a".repeat(WEBHOOK_URL_MAX_LENGTH - base.length + 1))).toBe(
      `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`,
    );
  });

  it.each(["", "receiver.example.com/hooks", "/hooks", "https://"])(
    "refuses %j, which is not an absolute URL",
    (raw) => {
      expect(problemOf(raw)).toBe("must be an absolute URL");
    },
  );

  it.each(["http://receiver.example.com/", "ftp://receiver.example.com/", "ws://receiver.example.com/"])(
    "refuses %s: https only",
    (raw) => expect(problemOf(raw)).toBe("must use https"),
  );

  it("accepts http for an allowed host only", () => {
    const allowed = parseAllowedHosts("127.0.0.1,receiver.test");
    expect(problemOf("http://127.0.0.1:8080/hooks", allowed)).toBeUndefined();
    expect(problemOf("http://receiver.test/hooks", allowed)).toBeUndefined();
    expect(problemOf("http://other.test/hooks", allowed)).toBe("must use https");
    expect(problemOf("ftp://127.0.0.1/", allowed)).toBe("must use https");
  });

  it.each([
    "https://user:hunter2@receiver.example.com/",
    "https://user@receiver.example.com/",
    "https://:hunter2@receiver.example.com/",
  ])("refuses credentials in %s without repeating them", (raw) => {
    const problem = problemOf(raw);
    expect(problem).toBe("must not contain a user name or password");
  });

  it.each(["https://receiver.example.com/hooks#part", "https://receiver.example.com/#"])(
    "refuses the fragment of %s",
    (raw) => {
      expect(problemOf(raw)).toBe("must not have a fragment");
    },
  );

  it.each([
    ["127.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["2130706433", "loopback"],
    ["0x7f000001", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["0x7f.1", "loopback"],
    ["[::1]", "loopback"],
    ["[::ffff:127.0.0.1]", "IPv4-mapped loopback"],
    ["[::ffff:7f00:1]", "IPv4-mapped loopback"],
    ["[0:0:0:0:0:ffff:127.0.0.1]", "IPv4-mapped loopback"],
    ["0.0.0.0", "unspecified"],
    ["0", "unspecified"],
    ["[::]", "unspecified"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["[::ffff:10.0.0.1]", "IPv4-mapped private"],
    ["169.254.169.254", "link-local"],
    ["[fe80::1]", "link-local"],
    ["[fc00::1]", "unique-local"],
    ["[fd12:3456::1]", "unique-local"],
    ["[fec0::1]", "site-local"],
    ["224.0.0.1", "multicast"],
    ["[ff02::1]", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["[2001:db8::1]", "reserved"],
    ["[::127.0.0.1]", "reserved"],
    ["[64:ff9b::127.0.0.1]", "NAT64 loopback"],
    ["[2002:7f00:1::1]", "6to4"],
    ["[2001:0:4136:e378::1]", "Teredo"],
  ])("refuses https://%s/ (%s), naming the host only", (host, range) => {
    const problem = problemOf(`https://${host}/private/path?token=secret`);
    expect(problem).toMatch(new RegExp(`^must not name an address in the ${range} range \\(`));
    expect(problem).not.toMatch(/private\/path|token|secret/);
  });

  it("accepts a refused address whose host is allowed, in any spelling of it", () => {
    const allowed = parseAllowedHosts("127.0.0.1,::1");
    expect(problemOf("https://0x7f.1:8443/", allowed)).toBeUndefined();
    expect(problemOf("http://2130706433/", allowed)).toBeUndefined();
    expect(problemOf("http://[0:0::1]/", allowed)).toBeUndefined();
    expect(problemOf("https://127.0.0.2/", allowed)).toMatch(/loopback/);
  });

  it.each(["93.184.216.34", "[2606:4700::1111]", "[::ffff:93.184.216.34]", "[64:ff9b::5db8:d822]"])(
    "accepts the public address https://%s/ (checked, never connected to)",
    (host) => expect(problemOf(`https://${host}/hooks`)).toBeUndefined(),
  );
});

describe(refusedAddress.name, () => {
  it.each([
    ["8.8.8.8", null],
    ["2606:4700::1111", null],
    ["::ffff:8.8.8.8", null],
    ["127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "IPv4-mapped link-local"],
    ["64:ff9b::a00:1", "NAT64 private"],
    ["fe80::1%eth0", "link-local"],
    ["100::1", "discard"],
    ["5f00::1", "segmentRouting"],
    ["0177.0.0.1", "malformed"],
    ["localhost", "malformed"],
    ["", "malformed"],
  ])("judges %j: %s", (address, range) => {
    expect(refusedAddress(address)).toBe(range);
  });
});

describe(resolveAndCheck.name, () => {
  const url = new URL("https://receiver.test/hooks");

  it("passes a host whose every address is public", async () => {
    const lookup = answering("93.184.216.34", "2606:4700::1111");
    await expect(resolveAndCheck(url, NONE, lookup)).resolves.toBeNull();
    expect(lookup).toHaveBeenCalledWith("receiver.test", expect.objectContaining({ all: true }), expect.any(Function));
  });

  it("refuses a host of which one address is refused, naming the host and not the address", async () => {
    const problem = await resolveAndCheck(url, NONE, answering("93.184.216.34", "10.1.2.3"));
    expect(problem).toBe("must not resolve to an address in the private range (receiver.test does)");
  });

  it("does not resolve an allowed host", async () => {
    const lookup = answering("127.0.0.1");
    await expect(resolveAndCheck(url, parseAllowedHosts("receiver.test"), lookup)).resolves.toBeNull();
    expect(lookup).not.toHaveBeenCalled();
  });

  it("leaves a host that does not resolve to the ping (no policy problem)", async () => {
    const lookup: LookupFunction = (_hostname, _options, callback) =>
      callback(Object.assign(new Error("getaddrinfo ENOTFOUND receiver.test"), { code: "ENOTFOUND" }), []);
    await expect(resolveAndCheck(url, NONE, lookup)).resolves.toBeNull();
  });

  it("judges an IP literal without a lookup", async () => {
    const lookup = answering("93.184.216.34");
    await expect(resolveAndCheck(new URL("https://[::1]/"), NONE, lookup)).resolves.toMatch(/loopback/);
    expect(lookup).not.toHaveBeenCalled();
  });
});
