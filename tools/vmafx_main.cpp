#include <cstdio>
int main() { std::puts("vmafx: CLI not built yet"); return 1; }
