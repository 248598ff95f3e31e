package owners

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cwx-dev/cwx/core/fetchproxy"
	"github.com/cwx-dev/cwx/core/protocol"
)

// serveFetch answers the fetch proxy's net/* requests (core/fetchproxy): the owner the
// request names must be the plugin's current one, live in this incarnation of this host,
// and its grants are config.toml's as the last Reconcile read them. The proxy's exchanges
// end with that owner.
func (l *Layer) serveFetch(ctx context.Context, t protocol.HostKey, gen uint64, msg *protocol.Message) (any, error) {
	ref, _ := fetchproxy.OwnerOf(msg)
	l.mu.Lock()
	o := l.owners[ref.PluginID]
	live := o != nil && o.ref == ref && o.host == t && o.gen == gen
	g := l.cfg.Plugin(ref.PluginID).Grants
	l.mu.Unlock()
	if !live {
		data, _ := json.Marshal(protocol.NetErrorData{Reason: protocol.NetReasonRequest})
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Data: data,
			Message: fmt.Sprintf("%s refused: owner %s generation %d is not live on this host", msg.Method, ref.PluginID, ref.Generation)}
	}
	return l.fetch.Serve(ctx, fetchproxy.Caller{Host: t, Generation: gen, Owner: ref, Context: o.ctx, Grants: g}, msg)
}
