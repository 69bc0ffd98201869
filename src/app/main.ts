document.getElementById('app')!.textContent = 'Houkai Web';
