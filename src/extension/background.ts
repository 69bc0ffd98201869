/** This repository's extension: the background service worker (see ./starter.ts). */
import { startMemoryHost } from './starter.ts';

startMemoryHost();
