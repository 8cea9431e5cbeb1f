// The page state: one object, kept in one store, so that it can go into the URL.
// No DOM: `FIELDS` is the typed table that `encodeState` / `decodeState` use for the
// fragment (not wired to location yet); `playing` is transient and never serialized.

export const SPEEDS = [0.5, 1, 2, 4, 8, 16]; // events per second

const int = { parse: (s) => (/^\d+$/.test(s) ? Number(s) : undefined) };
const text = { parse: (s) => s };
const speed = {
  parse: (s) => (SPEEDS.includes(Number(s)) ? Number(s) : undefined),
};

/** The serialized fields: name -> {type, default}. */
export const FIELDS = {
  preset: { type: text, default: "" },
  program: { type: text, default: "" },
  step: { type: int, default: 0 },
  speed: { type: speed, default: 2 },
};

export function defaultState() {
  const state = { playing: false };
  for (const [name, f] of Object.entries(FIELDS)) state[name] = f.default;
  return state;
}

/** The fields that differ from their defaults, as a query string for location.hash. */
export function encodeState(state) {
  const params = new URLSearchParams();
  for (const [name, f] of Object.entries(FIELDS)) {
    if (state[name] !== f.default) params.set(name, String(state[name]));
  }
  return params.toString();
}

/** The valid fields found in a fragment ("#a=1&b=2" or "a=1&b=2"); bad ones are dropped. */
export function decodeState(hash) {
  const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const state = {};
  for (const [name, f] of Object.entries(FIELDS)) {
    if (!params.has(name)) continue;
    const value = f.type.parse(params.get(name));
    if (value !== undefined) state[name] = value;
  }
  return state;
}

/** A store holding the one state object; `set` merges a patch and tells subscribers. */
export function createStore(initial = {}) {
  let state = { ...defaultState(), ...initial };
  const listeners = [];
  return {
    get: () => state,
    set(patch) {
      const before = state;
      state = { ...state, ...patch };
      for (const listener of listeners) listener(state, before);
    },
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}
