import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Duplex } from "node:stream";
import { refusedAddress } from "./webhook-url";

/** A connection refused because of the address it would reach. */
export class RefusedAddressError extends Error {
  override readonly name = "RefusedAddressError";
}

type ConnectCallback = (error: Error | null, stream: Duplex) => void;
type Connect = (options: http.ClientRequestArgs) => Duplex | null | undefined;

/**
 * Checks the address of every connection before it is made: the IP literal the agent was given,
 * or each address the lookup answers for a host name, so that a DNS answer that changed since
 * the URL was checked (rebinding) is judged as it is used. Net connects to an IP literal without
 * calling `lookup`, so both paths are guarded; a missing host is net's `localhost`.
 */
function guardedConnect(options: http.ClientRequestArgs, callback: ConnectCallback | undefined, connect: Connect) {
  const host = options.host ?? "localhost";
  if (isIP(host) === 0) return connect({ ...options, lookup: checkedLookup(options.lookup ?? dnsLookup) });
  const range = refusedAddress(host);
  if (range === null) return connect(options);
  const error = new RefusedAddressError(`the address is in the ${range} range`);
  // The agent passes its callback and reports the error on the request; without one, throwing is all there is.
  if (callback === undefined) throw error;
  // Node's agent reads only the error when there is one; @types/node asks for a stream all the same.
  (callback as (error: Error) => void)(error);
  return undefined;
}

function checkedLookup(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, answer, family) => {
      if (error !== null) return callback(error, answer, family);
      const addresses = typeof answer === "string" ? [answer] : answer.map((entry) => entry.address);
      for (const address of addresses) {
        const range = refusedAddress(address);
        if (range !== null) {
          return callback(new RefusedAddressError(`${hostname} resolves to an address in the ${range} range`), []);
        }
      }
      callback(null, answer, family);
    });
  };
}

/** An http agent whose connections reach only addresses that {@link refusedAddress} lets through. */
export class GuardedHttpAgent extends http.Agent {
  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback) {
    return guardedConnect(options, callback, (checked) => super.createConnection(checked, callback));
  }
}

/** An https agent whose connections reach only addresses that {@link refusedAddress} lets through. */
export class GuardedHttpsAgent extends https.Agent {
  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback) {
    return guardedConnect(options, callback, (checked) => super.createConnection(checked, callback));
  }
}
