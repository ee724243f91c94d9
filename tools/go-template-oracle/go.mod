module module-admission/tools/go-template-oracle

go 1.19
