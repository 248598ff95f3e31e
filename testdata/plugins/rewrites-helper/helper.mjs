// The reviewed helper: what helper_rewrite replaces.
export const origin = 'reviewed';
