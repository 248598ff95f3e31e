package fetchproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"syscall"

	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// classify turns what ended an exchange into its answer. The exchange's own end (its
// deadline, a cancel, a close) wins over the error it caused.
func (ex *exchange) classify(err error) *protocol.RPCError {
	on := ex.origin
	if ex.ctx.Err() != nil {
		cause := context.Cause(ex.ctx)
		switch {
		case errors.Is(cause, errDefaultTime):
			return refused(protocol.CodeRefused, protocol.NetReasonDeadline, on, "fetch to %s stopped: %s (%s)", on, errDefaultTime, "fetch inside a tool call to have its deadline instead")
		case errors.Is(cause, errdefs.ErrTimeout) || errors.Is(cause, context.DeadlineExceeded):
			return refused(protocol.CodeRefused, protocol.NetReasonDeadline, on, "fetch to %s stopped: the deadline of the tool call or command it was made in passed", on)
		case errors.Is(cause, egress.ErrTooLarge):
			return refused(protocol.CodeRefused, protocol.NetReasonTooLarge, on, "fetch to %s refused: a body over its size cap", on)
		}
		return refused(protocol.CodeCancelled, protocol.NetReasonCancelled, on, "fetch to %s cancelled: %s", on, cancelText(cause))
	}
	return classifyErr(ex.plugin, on, err)
}

// cancelText is why an exchange was cancelled, in words that name no value.
func cancelText(cause error) string {
	for _, e := range []error{errRequestGone, errClosed, errOwnerEnded, errHostEnded, errProxyClosed} {
		if errors.Is(cause, e) {
			return e.Error()
		}
	}
	return "the call it was made in was cancelled"
}

// classifyErr words an egress error about a request first sent to origin on by plugin id.
func classifyErr(id, on string, err error) *protocol.RPCError {
	var re *egress.RefusedError
	if errors.As(err, &re) {
		to := canonical(re.Origin, on)
		switch {
		case errors.Is(err, errRedirectRefused):
			return refused(protocol.CodeRefused, protocol.NetReasonRedirect, to,
				"fetch to %s refused: it redirected to %s, which is not in plugin %q's network grant; to allow it, add %q to network under [plugins.%q] in config.toml", on, to, id, to, id)
		case errors.Is(err, egress.ErrDowngrade):
			return refused(protocol.CodeRefused, protocol.NetReasonRedirect, to, "fetch to %s refused: it redirected from https to http (%s)", on, to)
		case errors.Is(err, egress.ErrRedirect):
			return refused(protocol.CodeRefused, protocol.NetReasonRedirect, to, "fetch to %s refused: an unusable redirect (%s)", on, to)
		case errors.Is(err, egress.ErrPrivateAddress):
			return refused(protocol.CodeRefused, protocol.NetReasonPrivate, to,
				"fetch to %s refused: it resolved to a private address (%s); if that is intended, add %q to network_private under [plugins.%q] in config.toml", to, re.Detail, to, id)
		case errors.Is(err, egress.ErrTooLarge):
			return refused(protocol.CodeRefused, protocol.NetReasonTooLarge, to, "fetch to %s refused: %s", to, re.Detail)
		case errors.Is(err, errNotGranted):
			return refused(protocol.CodeRefused, protocol.NetReasonNotGranted, to,
				"fetch to %s refused: it is not in plugin %q's network grant; to allow it, add %q to network under [plugins.%q] in config.toml", to, id, to, id)
		case errors.Is(err, errHeaderEnv):
			return refused(protocol.CodeRefused, protocol.NetReasonRequest, to, "fetch to %s refused: the headers configured for it under [plugins.%q.headers] cannot be set", to, id)
		}
		return refused(protocol.CodeRefused, protocol.NetReasonRequest, to, "fetch to %s refused: the request is not allowed", to)
	}
	switch {
	case errors.Is(err, egress.ErrTooLarge):
		return refused(protocol.CodeRefused, protocol.NetReasonTooLarge, on, "fetch to %s refused: a body over its size cap", on)
	case errors.Is(err, egress.ErrTimeout):
		return refused(protocol.CodeRefused, protocol.NetReasonDeadline, on, "fetch to %s stopped: its deadline passed", on)
	}
	return refused(protocol.CodeExecutionFailed, protocol.NetReasonNetwork, on, "fetch to %s failed: %s", on, networkText(err))
}

// canonical is s as an origin, or fallback when it is not one (egress names a URL for a
// request it refused whole: its path and query stay out of the message).
func canonical(s, fallback string) string {
	u, err := url.Parse(s)
	if err != nil {
		return fallback
	}
	o, err := egress.OriginOf(u)
	if err != nil {
		return fallback
	}
	return o.String()
}

// networkText says what failed on the network, without the URL (a url.Error carries the
// whole URL, query included).
func networkText(err error) string {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "its name does not resolve"
		}
		return "its name could not be resolved"
	case errors.As(err, &unknownCA):
		return "TLS: its certificate is signed by an unknown authority"
	case errors.As(err, &hostname):
		return "TLS: its certificate is not valid for its name"
	case errors.As(err, &invalid):
		return "TLS: its certificate is not valid"
	case errors.As(err, &record), errors.As(err, &alert):
		return "the TLS handshake failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the connection broke"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "the connection timed out"
	}
	return "the connection failed"
}

// reasonOf is e's NetErrorData reason, for a log line.
func reasonOf(e *protocol.RPCError) string {
	var d protocol.NetErrorData
	if json.Unmarshal(e.Data, &d) != nil || d.Reason == "" {
		return "refused"
	}
	return d.Reason
}
