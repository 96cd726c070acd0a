import { budgetAddress } from "./failed-auth-budget";

describe(budgetAddress.name, () => {
  it("keeps an IPv4 address, and unwraps an IPv4-mapped IPv6 one", () => {
    expect(budgetAddress("203.0.113.9")).toBe("203.0.113.9");
    expect(budgetAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });

  it("counts every address of an IPv6 /64 together", () => {
    expect(budgetAddress("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(budgetAddress("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(budgetAddress("2001:0DB8:0001:0002::ffff")).toBe("2001:db8:1:2::/64");
    expect(budgetAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(budgetAddress("::1")).toBe("0:0:0:0::/64");
  });

  it("names a missing address", () => {
    expect(budgetAddress(undefined)).toBe("unknown");
  });
});
