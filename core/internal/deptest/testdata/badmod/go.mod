module github.com/cwx-dev/cwx

go 1.26
