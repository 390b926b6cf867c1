#!/bin/sh
# A script shipped in the extension: if the sandbox lets it run, it prints
# "escaped".
echo escaped
