// The few Node.js APIs lockstep.js uses (its file store), declared for the type check: Debian
// packages no @types/node, and the library has no dependencies to bring one.
declare module "node:fs/promises" {
  interface FileHandle {
    write(data: string | Uint8Array): Promise<unknown>;
    writeFile(data: string | Uint8Array): Promise<void>;
    sync(): Promise<void>;
    datasync(): Promise<void>;
    close(): Promise<void>;
  }
  function open(path: string, flags: string, mode?: number): Promise<FileHandle>;
  function readFile(path: string): Promise<Uint8Array>;
  function readFile(path: string, encoding: "utf8"): Promise<string>;
  function rename(from: string, to: string): Promise<void>;
  function rm(path: string, options?: { force?: boolean; recursive?: boolean }): Promise<void>;
  function mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<string | undefined>;
}
declare module "node:path" {
  function join(...parts: string[]): string;
}
declare var process: { pid: number; kill(pid: number, signal: number): boolean; hrtime: { bigint(): bigint } };
