// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// A test fixture written here: the part of Multicall3's ABI the treasury uses (`aggregate3`,
/// `getEthBalance`), with the same selectors, structs and failure rule, so tests deploy a
/// Multicall3 on anvil without embedding another project's code.
contract Multicall3Subset {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory answer) = calls[i].target.call(calls[i].callData);
            require(success || calls[i].allowFailure, "Multicall3: call failed");
            returnData[i] = Result(success, answer);
        }
    }

    function getEthBalance(address account) external view returns (uint256) {
        return account.balance;
    }
}
