// Shared test setup; see test/helpers/processes.ts for the process-leak guard.
export {};
