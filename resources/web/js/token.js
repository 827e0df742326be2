// token.js: the per-launch access token.
//
// The server prints http://127.0.0.1:PORT/#token=…; the part after '#' never
// leaves the browser, so the token reaches neither the server's logs nor
// any Referer. We move it into this tab's sessionStorage (gone when the tab
// closes) and take it out of the address bar at once, so it is not left in
// history or in a copied URL.

const KEY = 'openworker.token';

// The token in the address bar's fragment (#token=…), or null.
export function tokenInFragment() {
  return new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
}

// Reads a token from the fragment if one is there; returns the stored one.
export function takeToken() {
  const fromUrl = tokenInFragment();
  if (fromUrl) {
    sessionStorage.setItem(KEY, fromUrl);
    history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  }
  return sessionStorage.getItem(KEY);
}

export function getToken() {
  return sessionStorage.getItem(KEY);
}

export function forgetToken() {
  sessionStorage.removeItem(KEY);
}
