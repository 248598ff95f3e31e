// The helper whose throw is the plugin's top stack frame (line 3).
export function explode(what) {
  throw new Error(`${what} exploded`);
}
