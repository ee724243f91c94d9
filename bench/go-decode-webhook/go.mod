module module-admission/bench/go-decode-webhook

go 1.26.0
