// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// The EIP-7702 sweeper of the gateway's treasury (issue 36). A deposit address delegates to it
/// once; from then on anybody may call `sweep(token)` on the deposit address, and the only thing
/// that can happen is that the address's whole balance of `token` goes to `destination`, fixed at
/// deployment (an immutable: it lives in the runtime code, not in the delegating account's
/// storage). No owner, no upgrade, no other call. Plain ETH payments to a delegated address are
/// still accepted (`receive`), so it stays usable as a deposit address; its ETH leaves by the
/// address's own (offline-signed) transactions, as before.
contract TokenSweeper {
    address public immutable destination;

    constructor(address destination_) {
        require(destination_ != address(0), "destination");
        destination = destination_;
    }

    receive() external payable {}

    /// Sends this account's whole balance of `token` to `destination`. Tokens that return nothing
    /// from `transfer` (USDT) are accepted; a `false` or a revert reverts.
    function sweep(address token) external {
        (bool ok, bytes memory answer) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        require(ok && answer.length >= 32, "balanceOf");
        uint256 amount = abi.decode(answer, (uint256));
        if (amount == 0) return;
        (ok, answer) = token.call(abi.encodeWithSelector(0xa9059cbb, destination, amount));
        require(ok && (answer.length == 0 || abi.decode(answer, (bool))), "transfer");
    }
}
