package shimv1

// Pinned generators: protoc 3.21.12 (Debian's protobuf-compiler), protoc-gen-go v1.36.12,
// protoc-gen-go-grpc v1.5.1. See ../README.md.
//go:generate protoc --proto_path=. --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative shim.proto
