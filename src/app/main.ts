import { mount } from 'svelte';
import App from './App.svelte';
import { pwa } from './state/pwa.svelte.ts';
import './styles.css';

pwa.start();
mount(App, { target: document.getElementById('app')! });
