module github.com/ddbst/ddbst/bindings/go

go 1.19
