package gate

// The approval keys of one call from its raw input, for the tests (the gate computes them
// from the canonical input it already holds).

// NativeKey returns the approval key of a native tool's call by the model:
// native:<tool>:<sha256 hex of the RFC 8785 canonical input>.
func NativeKey(tool string, input []byte) (string, error) {
	canon, err := Canonicalize(input)
	if err != nil {
		return "", err
	}
	return nativeKeyOf(tool, canon), nil
}

// CallerKey returns the origin-scoped approval key of a core/call:
// extcall:ext:<plugin_id>@<closure sha256>:<tool>:<sha256 hex of the canonical input>, so a
// grant for a model's call of tool never covers an extension's, and the reverse.
func CallerKey(c Caller, tool string, input []byte) (string, error) {
	canon, err := Canonicalize(input)
	if err != nil {
		return "", err
	}
	return callerKeyOf(c, tool, canon), nil
}

// Key returns the approval key of a call:
// ext:<plugin_id>@<closure sha256>:<tool>:<sha256 hex of the RFC 8785 canonical input>.
func Key(pluginID, closureSHA256, tool string, input []byte) (string, error) {
	canon, err := Canonicalize(input)
	if err != nil {
		return "", err
	}
	return keyOf(pluginID, closureSHA256, tool, canon), nil
}
