module github.com/gemini-environments/pulumi-gemini-environments/sdk/go

go 1.25

require github.com/pulumi/pulumi/sdk/v3 v3.30.0
