// PouchDB's packages ship no types; sync-pouchdb.ts declares the slice it uses.
declare module 'pouchdb-core';
declare module 'pouchdb-adapter-http';
declare module 'pouchdb-replication';
declare module 'pouchdb-adapter-memory';
declare module 'pouchdb-adapter-indexeddb';
