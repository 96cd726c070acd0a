/** oidc-provider's types: the package is ESM-only, so its types are imported with an attribute. */
type Module = typeof import("oidc-provider", { with: { "resolution-mode": "import" }});

export type Provider = InstanceType<Module["default"]>;
export type Configuration = import("oidc-provider", { with: { "resolution-mode": "import" }}).Configuration;
export type Adapter = import("oidc-provider", { with: { "resolution-mode": "import" }}).Adapter;
export type AdapterPayload = import("oidc-provider", { with: { "resolution-mode": "import" }}).AdapterPayload;
export type ClientMetadata = import("oidc-provider", { with: { "resolution-mode": "import" }}).ClientMetadata;
