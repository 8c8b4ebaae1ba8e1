// The local chain's hardhat node: chain id 31337, automining, the well-known test mnemonic. Nothing is
// compiled here (the token is compiled with solc-js by chain/compile.ts), so the sources folder is empty
// and hardhat never downloads a compiler.
module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      mining: { auto: true },
      // Automining gives each block a timestamp at least a second past the last one, so a burst of
      // transactions pushes chain time ahead of the clock and lapses authorizations signed against it.
      allowBlocksWithSameTimestamp: true,
      accounts: { mnemonic: 'test test test test test test test test test test test junk', count: 20 },
      loggingEnabled: false,
    },
  },
  paths: {
    sources: './.build/no-sources',
    cache: './.build/hardhat-cache',
    artifacts: './.build/hardhat-artifacts',
  },
};
