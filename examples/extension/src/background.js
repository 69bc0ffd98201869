import { startMemoryHost } from 'houkai-web/extension';

// Starts the offscreen document (offscreen.html) when a popup or content script asks for the memory.
startMemoryHost();
