// Package shimv1 is the generated gRPC code for the core <-> node shim contract, version 1
// (shim.proto beside it). Do not edit the .pb.go files; change shim.proto and regenerate as
// ../README.md says. A change that old peers cannot read needs a new package (shimv2) and a
// bump of shared.Handshake's ProtocolVersion.
package shimv1
