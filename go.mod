module github.com/arborbt/arbor

go 1.22

require (
	github.com/chromedp/chromedp v0.11.0
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/chromedp/cdproto v0.0.0-20241003230502-a4a8f7c660df // indirect
	github.com/chromedp/sysutil v1.0.0 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/pool v0.2.1 // indirect
	github.com/gobwas/ws v1.4.0 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	golang.org/x/sys v0.26.0 // indirect
)
