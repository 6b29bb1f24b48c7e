/**
 * Handing mcpx's servers to another program (`mcpx exec`): a private,
 * short-lived config file under the mcpx home, and the removal of those a
 * killed mcpx left behind.
 */
export {
  type HandoverFile,
  type ProcessIdentity,
  processIdentity,
  RUN_FOLDER,
  removeStaleHandovers,
  writeHandoverFile,
} from './handover-file.js';
