// The version of lockstep.js. The server serves these files under a URL made of it and of the
// files' hash (`/sdk/lockstep-<version>-<hash>.js`); Clients/JavaScript/package.json says the same.

/** The package's version. */
export const version = "0.1.0";
