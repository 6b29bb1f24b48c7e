/**
 * The mcpx home (`~/.mcpx`, or `MCPX_HOME`): mcpx's own state, read and
 * written only through `createHomeFiles()`, which refuses symbolic links and
 * foreign files, keeps folders 0700 and files 0600, and replaces files
 * atomically.
 */
export { createHomeFiles, type HomeFiles } from './safe-file.js';
